// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {FeeSplit} from "../lib/FeeSplit.sol";

interface ISubnetManager {
    function validSubnet(uint256 subnetId) external view returns (bool);
    function hasSubnetAccess(uint256 subnetId, address account) external view returns (bool);
    function getSubnetPrimaryToken(uint256 subnetId) external view returns (address);
    function publishingFeeCORE(uint256 subnetId) external view returns (uint256);
    function publishingFeePrimaryToken(uint256 subnetId) external view returns (uint256);
    function republishingFeeCORE(uint256 subnetId) external view returns (uint256);
    function emissionPool(uint256 subnetId) external view returns (uint256 corePool, uint256 primaryPool);
    function emissionsPerEpochAt(uint256 subnetId, uint256 epoch) external view returns (uint256 core, uint256 primary);
    function core() external view returns (address);
    function recordPodFee(uint256 subnetId, FeeSplit.FeeKind kind, address token, address payer, uint256 amount)
        external;
    function payEmissions(uint256 subnetId, address to, uint256 coreAmount, uint256 primaryAmount) external;
}
