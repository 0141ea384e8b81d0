// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Checkpoints} from "@openzeppelin/contracts/utils/structs/Checkpoints.sol";
import {IVeCore} from "./interfaces/IVeCore.sol";
import {FeeSplit} from "./lib/FeeSplit.sol";

/// @notice Datanets ("subnets"): one ERC-721 per published datanet, its fees, its emission
/// pools and who holds access. Every fee is paid to this contract and split at once by FeeSplit:
/// the burnt part goes to BURN_ADDRESS, the pool part to `performancePool`, the locked part stays here.
contract SubnetManager is ERC721, AccessControl {
    using SafeERC20 for IERC20;
    using Checkpoints for Checkpoints.Trace208;

    enum Param {
        AccessFeeCORE,
        AccessFeePrimaryToken,
        PublishingFeeCORE,
        PublishingFeePrimaryToken,
        RepublishingFeeCORE,
        EmissionsPerEpochCORE,
        EmissionsPerEpochPrimaryToken
    }

    struct Subnet {
        address primaryToken;
        uint256 accessFeeCORE;
        uint256 accessFeePrimaryToken;
        uint256 publishingFeeCORE;
        uint256 publishingFeePrimaryToken;
        uint256 republishingFeeCORE;
        uint256 corePool;
        uint256 primaryPool;
    }

    bytes32 public constant POD_MANAGER_ROLE = keccak256("POD_MANAGER_ROLE");
    address public constant BURN_ADDRESS = 0x000000000000000000000000000000000000dEaD;

    IERC20 public immutable core;
    IVeCore public immutable veCore;
    address public performancePool;
    uint256 public subnetCreationFee;
    uint256 public nextSubnetId = 1;

    mapping(uint256 subnetId => Subnet) private _subnets;
    mapping(uint256 subnetId => Checkpoints.Trace208) private _emissionsCORE;
    mapping(uint256 subnetId => Checkpoints.Trace208) private _emissionsPrimary;
    mapping(uint256 subnetId => mapping(address account => bool)) private _access;
    mapping(address token => uint256) public lockedFees;

    event SubnetPublished(uint256 indexed subnetId, address indexed owner, address indexed primaryToken, uint256 creationFee);
    event SubnetParameterUpdated(uint256 indexed subnetId, Param indexed param, uint256 value, uint256 epoch);
    event SubnetAccessGranted(
        uint256 indexed subnetId, address indexed account, address indexed payer, address token, uint256 fee
    );
    event EmissionPoolSeeded(uint256 indexed subnetId, address indexed from, address indexed token, uint256 amount);
    event SubnetBoosted(uint256 indexed subnetId, address indexed staker, uint256 amount);
    event FeeCollected(
        uint256 indexed subnetId,
        FeeSplit.FeeKind indexed kind,
        address indexed token,
        address payer,
        uint256 amount,
        uint256 burnt,
        uint256 toPerformancePool,
        uint256 locked
    );
    event EmissionsPaid(uint256 indexed subnetId, address indexed to, uint256 coreAmount, uint256 primaryAmount);
    event SubnetCreationFeeSet(uint256 fee);
    event PerformancePoolSet(address pool);

    error UnknownSubnet(uint256 subnetId);
    error NotSubnetOwner(uint256 subnetId, address caller);
    error InvalidPrimaryToken(address token);
    error ZeroAmount();
    error InsufficientEmissionPool(uint256 subnetId, uint256 coreDue, uint256 corePool, uint256 primaryDue, uint256 primaryPool);
    error ZeroAddress();

    constructor(IERC20 core_, IVeCore veCore_, address performancePool_, uint256 subnetCreationFee_, address admin)
        ERC721("Datanet", "DATANET")
    {
        if (performancePool_ == address(0)) revert ZeroAddress();
        core = core_;
        veCore = veCore_;
        performancePool = performancePool_;
        subnetCreationFee = subnetCreationFee_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
    }

    // ---- publishing and parameters ----

    function publishSubnet(address primaryToken) external returns (uint256 subnetId) {
        if (primaryToken.code.length == 0) revert InvalidPrimaryToken(primaryToken);
        subnetId = nextSubnetId++;
        _subnets[subnetId].primaryToken = primaryToken;
        _mint(msg.sender, subnetId);
        uint256 fee = subnetCreationFee;
        _collectFee(subnetId, FeeSplit.FeeKind.Creation, address(core), msg.sender, fee);
        emit SubnetPublished(subnetId, msg.sender, primaryToken, fee);
    }

    function setAccessFeeCORE(uint256 subnetId, uint256 fee) external {
        _setParam(subnetId, Param.AccessFeeCORE, fee);
    }

    function setAccessFeePrimaryToken(uint256 subnetId, uint256 fee) external {
        _setParam(subnetId, Param.AccessFeePrimaryToken, fee);
    }

    function setPublishingFeeCORE(uint256 subnetId, uint256 fee) external {
        _setParam(subnetId, Param.PublishingFeeCORE, fee);
    }

    function setPublishingFeePrimaryToken(uint256 subnetId, uint256 fee) external {
        _setParam(subnetId, Param.PublishingFeePrimaryToken, fee);
    }

    function setRepublishingFeeCORE(uint256 subnetId, uint256 fee) external {
        _setParam(subnetId, Param.RepublishingFeeCORE, fee);
    }

    /// @notice Applies from the current epoch on (the current epoch is not closed yet).
    function setEmissionsPerEpochCORE(uint256 subnetId, uint256 amount) external {
        _setParam(subnetId, Param.EmissionsPerEpochCORE, amount);
    }

    function setEmissionsPerEpochPrimaryToken(uint256 subnetId, uint256 amount) external {
        _setParam(subnetId, Param.EmissionsPerEpochPrimaryToken, amount);
    }

    // ---- pools ----

    /// @notice The datanet owner funds the pools that emissions are paid from.
    function seedEmissionPool(uint256 subnetId, uint256 coreAmount, uint256 primaryAmount) external {
        _onlySubnetOwner(subnetId);
        if (coreAmount == 0 && primaryAmount == 0) revert ZeroAmount();
        Subnet storage s = _subnets[subnetId];
        if (coreAmount > 0) {
            s.corePool += coreAmount;
            core.safeTransferFrom(msg.sender, address(this), coreAmount);
            emit EmissionPoolSeeded(subnetId, msg.sender, address(core), coreAmount);
        }
        if (primaryAmount > 0) {
            s.primaryPool += primaryAmount;
            IERC20(s.primaryToken).safeTransferFrom(msg.sender, address(this), primaryAmount);
            emit EmissionPoolSeeded(subnetId, msg.sender, s.primaryToken, primaryAmount);
        }
    }

    /// @notice Targeted stake: CORE added to one datanet's reward pool by anyone.
    /// Unlike a VeCore lock it gives no voting power and is not withdrawn.
    function boost(uint256 subnetId, uint256 amount) external {
        _requireSubnet(subnetId);
        if (amount == 0) revert ZeroAmount();
        _subnets[subnetId].corePool += amount;
        core.safeTransferFrom(msg.sender, address(this), amount);
        emit SubnetBoosted(subnetId, msg.sender, amount);
    }

    // ---- access ----

    /// @notice Pays the datanet's CORE access fee to this contract (the package receiver) and grants `to` access.
    function accessSubnetWithCOREFee(uint256 subnetId, address to) external {
        _requireSubnet(subnetId);
        _grantAccess(subnetId, to, address(core), _subnets[subnetId].accessFeeCORE);
    }

    /// @notice = accessSubnetWithCOREFee(subnetId, to) under the live contracts' token name: same
    /// checks, same fee, same events.
    function accessSubnetWithREPPOFee(uint256 subnetId, address to) external {
        _requireSubnet(subnetId);
        _grantAccess(subnetId, to, address(core), _subnets[subnetId].accessFeeCORE);
    }

    function accessSubnetWithPrimaryTokenFee(uint256 subnetId, address to) external {
        _requireSubnet(subnetId);
        Subnet storage s = _subnets[subnetId];
        _grantAccess(subnetId, to, s.primaryToken, s.accessFeePrimaryToken);
    }

    function hasSubnetAccess(uint256 subnetId, address account) public view returns (bool) {
        return (account != address(0) && _ownerOf(subnetId) == account) || _access[subnetId][account];
    }

    // ---- called by PodManager ----

    /// @notice PodManager has moved `amount` of `token` from `payer` to this contract; split it.
    function recordPodFee(uint256 subnetId, FeeSplit.FeeKind kind, address token, address payer, uint256 amount)
        external
        onlyRole(POD_MANAGER_ROLE)
    {
        _splitFee(subnetId, kind, token, payer, amount);
    }

    function payEmissions(uint256 subnetId, address to, uint256 coreAmount, uint256 primaryAmount)
        external
        onlyRole(POD_MANAGER_ROLE)
    {
        Subnet storage s = _subnets[subnetId];
        if (coreAmount > s.corePool || primaryAmount > s.primaryPool) {
            revert InsufficientEmissionPool(subnetId, coreAmount, s.corePool, primaryAmount, s.primaryPool);
        }
        s.corePool -= coreAmount;
        s.primaryPool -= primaryAmount;
        if (coreAmount > 0) core.safeTransfer(to, coreAmount);
        if (primaryAmount > 0) IERC20(s.primaryToken).safeTransfer(to, primaryAmount);
        emit EmissionsPaid(subnetId, to, coreAmount, primaryAmount);
    }

    // ---- admin ----

    function setSubnetCreationFee(uint256 fee) external onlyRole(DEFAULT_ADMIN_ROLE) {
        subnetCreationFee = fee;
        emit SubnetCreationFeeSet(fee);
    }

    function setPerformancePool(address pool) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (pool == address(0)) revert ZeroAddress();
        performancePool = pool;
        emit PerformancePoolSet(pool);
    }

    // ---- views ----

    function validSubnet(uint256 subnetId) public view returns (bool) {
        return _ownerOf(subnetId) != address(0);
    }

    function getSubnet(uint256 subnetId) external view returns (Subnet memory) {
        _requireSubnet(subnetId);
        return _subnets[subnetId];
    }

    function getSubnetPrimaryToken(uint256 subnetId) external view returns (address) {
        return _subnets[subnetId].primaryToken;
    }

    function accessFeeCORE(uint256 subnetId) external view returns (uint256) {
        return _subnets[subnetId].accessFeeCORE;
    }

    /// @notice = accessFeeCORE(subnetId), under the live contracts' name.
    function getAccessFeeREPPO(uint256 subnetId) external view returns (uint256) {
        return _subnets[subnetId].accessFeeCORE;
    }

    function accessFeePrimaryToken(uint256 subnetId) external view returns (uint256) {
        return _subnets[subnetId].accessFeePrimaryToken;
    }

    /// @notice = accessFeePrimaryToken(subnetId), under the live contracts' name.
    function getAccessFeePrimaryToken(uint256 subnetId) external view returns (uint256) {
        return _subnets[subnetId].accessFeePrimaryToken;
    }

    function publishingFeeCORE(uint256 subnetId) external view returns (uint256) {
        return _subnets[subnetId].publishingFeeCORE;
    }

    /// @notice = publishingFeeCORE(subnetId), under the live contracts' name.
    function getPublishingFeeREPPO(uint256 subnetId) external view returns (uint256) {
        return _subnets[subnetId].publishingFeeCORE;
    }

    function publishingFeePrimaryToken(uint256 subnetId) external view returns (uint256) {
        return _subnets[subnetId].publishingFeePrimaryToken;
    }

    /// @notice = publishingFeePrimaryToken(subnetId), under the live contracts' name.
    function getPublishingFeePrimaryToken(uint256 subnetId) external view returns (uint256) {
        return _subnets[subnetId].publishingFeePrimaryToken;
    }

    function republishingFeeCORE(uint256 subnetId) external view returns (uint256) {
        return _subnets[subnetId].republishingFeeCORE;
    }

    function emissionPool(uint256 subnetId) external view returns (uint256 corePool, uint256 primaryPool) {
        Subnet storage s = _subnets[subnetId];
        return (s.corePool, s.primaryPool);
    }

    /// @notice Emissions in force for `epoch`: the last value set during or before that epoch.
    function emissionsPerEpochAt(uint256 subnetId, uint256 epoch) external view returns (uint256, uint256) {
        uint48 key = uint48(epoch);
        return (_emissionsCORE[subnetId].upperLookup(key), _emissionsPrimary[subnetId].upperLookup(key));
    }

    /// @notice Primary-token emissions per epoch in force now: the rate set last (a change applies
    /// from the epoch it is made in), = the second value of emissionsPerEpochAt(subnetId, currentEpoch).
    function getPrimaryTokenEmissionsPerEpoch(uint256 subnetId) external view returns (uint256) {
        return _emissionsPrimary[subnetId].latest();
    }

    /// @notice CORE emissions per epoch in force now, under the live contracts' name: the rate set
    /// last, = the first value of emissionsPerEpochAt(subnetId, currentEpoch).
    function getReppoEmissionsPerEpoch(uint256 subnetId) external view returns (uint256) {
        return _emissionsCORE[subnetId].latest();
    }

    function supportsInterface(bytes4 interfaceId) public view override(ERC721, AccessControl) returns (bool) {
        return super.supportsInterface(interfaceId);
    }

    // ---- internals ----

    function _setParam(uint256 subnetId, Param param, uint256 value) private {
        _onlySubnetOwner(subnetId);
        Subnet storage s = _subnets[subnetId];
        uint256 epoch = veCore.currentEpoch();
        if (param == Param.AccessFeeCORE) s.accessFeeCORE = value;
        else if (param == Param.AccessFeePrimaryToken) s.accessFeePrimaryToken = value;
        else if (param == Param.PublishingFeeCORE) s.publishingFeeCORE = value;
        else if (param == Param.PublishingFeePrimaryToken) s.publishingFeePrimaryToken = value;
        else if (param == Param.RepublishingFeeCORE) s.republishingFeeCORE = value;
        else if (param == Param.EmissionsPerEpochCORE) _emissionsCORE[subnetId].push(uint48(epoch), uint208(value));
        else _emissionsPrimary[subnetId].push(uint48(epoch), uint208(value));
        emit SubnetParameterUpdated(subnetId, param, value, epoch);
    }

    function _grantAccess(uint256 subnetId, address to, address token, uint256 fee) private {
        if (to == address(0)) revert ZeroAddress();
        _access[subnetId][to] = true;
        _collectFee(subnetId, FeeSplit.FeeKind.Access, token, msg.sender, fee);
        emit SubnetAccessGranted(subnetId, to, msg.sender, token, fee);
    }

    function _collectFee(uint256 subnetId, FeeSplit.FeeKind kind, address token, address payer, uint256 amount) private {
        if (amount == 0) return;
        IERC20(token).safeTransferFrom(payer, address(this), amount);
        _splitFee(subnetId, kind, token, payer, amount);
    }

    function _splitFee(uint256 subnetId, FeeSplit.FeeKind kind, address token, address payer, uint256 amount) private {
        if (amount == 0) return;
        (uint256 burnt, uint256 toPool, uint256 locked) = FeeSplit.split(kind, amount);
        lockedFees[token] += locked;
        if (burnt > 0) IERC20(token).safeTransfer(BURN_ADDRESS, burnt);
        if (toPool > 0) IERC20(token).safeTransfer(performancePool, toPool);
        emit FeeCollected(subnetId, kind, token, payer, amount, burnt, toPool, locked);
    }

    function _requireSubnet(uint256 subnetId) private view {
        if (!validSubnet(subnetId)) revert UnknownSubnet(subnetId);
    }

    function _onlySubnetOwner(uint256 subnetId) private view {
        address owner = _ownerOf(subnetId);
        if (owner == address(0)) revert UnknownSubnet(subnetId);
        if (owner != msg.sender) revert NotSubnetOwner(subnetId, msg.sender);
    }
}
