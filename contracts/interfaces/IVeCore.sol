// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IVeCore {
    function currentEpoch() external view returns (uint256);
    function votingPowerOf(address account) external view returns (uint256);
}
