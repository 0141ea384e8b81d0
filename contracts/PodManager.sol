// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IVeCore} from "./interfaces/IVeCore.sol";
import {ISubnetManager} from "./interfaces/ISubnetManager.sol";
import {FeeSplit} from "./lib/FeeSplit.sol";
import {EmissionMath} from "./lib/EmissionMath.sol";

/// @notice Pods (one ERC-721 per unit of content), curation votes and emission claims.
/// A pod is valid for curation from its mint epoch through `validityEpoch`, unless a moderator
/// invalidates it, after which it earns nothing from that epoch on.
contract PodManager is ERC721, AccessControl {
    using SafeERC20 for IERC20;

    struct Pod {
        uint256 subnetId;
        uint256 mintEpoch;
        uint256 validityEpoch;
        uint256 invalidFromEpoch; // 0 = never invalidated
    }

    bytes32 public constant MODERATOR_ROLE = keccak256("MODERATOR_ROLE");

    IERC20 public immutable core;
    IVeCore public immutable veCore;
    ISubnetManager public immutable subnetManager;
    uint256 public podValidityPeriod; // epochs a mint or republish keeps a pod valid, counting the current one
    uint256 public nextPodId = 1;

    mapping(uint256 podId => Pod) private _pods;
    mapping(uint256 podId => mapping(uint256 epoch => uint256)) public podUpVotes;
    mapping(uint256 podId => mapping(uint256 epoch => uint256)) public podDownVotes;
    /// @notice The datanet a pod's votes of an epoch count for (0 when it had no votes).
    mapping(uint256 podId => mapping(uint256 epoch => uint256)) public podEpochSubnet;
    /// @notice Sum over the datanet's valid pods of max(up - down, 0) in an epoch.
    mapping(uint256 subnetId => mapping(uint256 epoch => uint256)) public subnetPositiveNetVotes;
    mapping(address voter => mapping(uint256 epoch => uint256)) public votesCastedByVoterForEpoch;
    mapping(address voter => mapping(uint256 podId => mapping(uint256 epoch => uint256))) public voterUpVotes;
    mapping(address voter => mapping(uint256 podId => mapping(uint256 epoch => uint256))) public voterDownVotes;
    /// @dev Read through `hasPodOwnerClaimedEmissions(epoch, podId)` (the live argument order).
    mapping(uint256 podId => mapping(uint256 epoch => bool)) private _podOwnerClaimed;
    /// @dev Read through `hasUserClaimedEmissions(epoch, podId, user)` (the live argument order).
    mapping(address voter => mapping(uint256 podId => mapping(uint256 epoch => bool))) private _voterClaimed;

    event PodMinted(
        uint256 indexed podId,
        address indexed owner,
        uint256 indexed subnetId,
        address payer,
        address paymentToken,
        uint256 fee,
        uint256 mintEpoch,
        uint256 validityEpoch
    );
    event PodRepublished(
        uint256 indexed podId,
        address indexed owner,
        uint256 indexed subnetId,
        uint256 previousSubnetId,
        uint256 fee,
        uint256 validityEpoch
    );
    event Voted(
        uint256 indexed podId,
        address indexed voter,
        uint256 indexed subnetId,
        uint256 epoch,
        uint256 votes,
        bool upVote,
        uint256 votingPower
    );
    event PodInvalidated(uint256 indexed podId, uint256 fromEpoch, address indexed moderator, string reason);
    event PodOwnerEmissionsClaimed(
        uint256 indexed podId,
        uint256 indexed epoch,
        address indexed owner,
        uint256 subnetId,
        address sender,
        uint256 coreAmount,
        uint256 primaryAmount
    );
    event VoterEmissionsClaimed(
        uint256 indexed podId,
        uint256 indexed epoch,
        address indexed voter,
        uint256 subnetId,
        address sender,
        uint256 coreAmount,
        uint256 primaryAmount
    );
    event PodValidityPeriodSet(uint256 epochs);

    error UnknownSubnet(uint256 subnetId);
    error UnknownPod(uint256 podId);
    error NotPodOwner(uint256 podId, address caller);
    error PodNotValid(uint256 podId, uint256 epoch);
    error PodAlreadyInvalid(uint256 podId);
    error CannotVoteOwnPod(uint256 podId);
    error NoSubnetAccess(uint256 subnetId, address voter);
    error ZeroVotes();
    /// @notice A vote over the caller's remaining budget for the epoch
    /// (`votes + votesCastedByVoterForEpoch > votingPowerOf`); the live contracts' error, no arguments.
    error InsufficientVotingPower();
    error EpochNotClosed(uint256 epoch);
    error AlreadyClaimed(uint256 podId, uint256 epoch, address account);
    error NothingToClaim(uint256 podId, uint256 epoch, address account);
    error InvalidValidityPeriod();
    /// @dev Raised by SubnetManager.payEmissions and bubbled up by the claims; declared here so
    /// that PodManager's ABI can decode it.
    error InsufficientEmissionPool(
        uint256 subnetId, uint256 coreDue, uint256 corePool, uint256 primaryDue, uint256 primaryPool
    );

    constructor(IERC20 core_, IVeCore veCore_, ISubnetManager subnetManager_, uint256 podValidityPeriod_, address admin)
        ERC721("Pod", "POD")
    {
        if (podValidityPeriod_ == 0) revert InvalidValidityPeriod();
        core = core_;
        veCore = veCore_;
        subnetManager = subnetManager_;
        podValidityPeriod = podValidityPeriod_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(MODERATOR_ROLE, admin);
    }

    // ---- minting ----

    function mintPodWithCORE(address to, uint256 subnetId) external returns (uint256 podId) {
        return _mintPodWithCORE(to, subnetId);
    }

    /// @notice = mintPodWithCORE(to, subnetId) under the live contracts' token name: same checks,
    /// same fee, same events (the indexer and the API see one protocol).
    function mintPodWithREPPO(address to, uint256 subnetId) external returns (uint256 podId) {
        return _mintPodWithCORE(to, subnetId);
    }

    function mintPodWithPrimaryToken(address to, uint256 subnetId) external returns (uint256 podId) {
        _requireSubnet(subnetId);
        address token = subnetManager.getSubnetPrimaryToken(subnetId);
        return _mintPod(to, subnetId, token, subnetManager.publishingFeePrimaryToken(subnetId));
    }

    /// @notice Publishes the pod again, into the same or another datanet, and renews its validity.
    /// Votes it already has in the current epoch move with it.
    function republishPod(uint256 podId, uint256 subnetId) external {
        _requireSubnet(subnetId);
        if (_requireOwner(podId) != msg.sender) revert NotPodOwner(podId, msg.sender);
        Pod storage pod = _pods[podId];
        uint256 epoch = veCore.currentEpoch();
        if (pod.invalidFromEpoch != 0) revert PodNotValid(podId, epoch);
        uint256 previous = pod.subnetId;
        uint256 votedIn = podEpochSubnet[podId][epoch];
        if (votedIn != 0 && votedIn != subnetId) {
            uint256 net = _positiveNet(podId, epoch);
            subnetPositiveNetVotes[votedIn][epoch] -= net;
            subnetPositiveNetVotes[subnetId][epoch] += net;
            podEpochSubnet[podId][epoch] = subnetId;
        }
        pod.subnetId = subnetId;
        pod.validityEpoch = epoch + podValidityPeriod - 1;
        uint256 fee = subnetManager.republishingFeeCORE(subnetId);
        _chargeFee(subnetId, FeeSplit.FeeKind.Republishing, address(core), fee);
        emit PodRepublished(podId, msg.sender, subnetId, previous, fee, pod.validityEpoch);
    }

    // ---- voting ----

    /// @notice Spends `votes` of the caller's per-epoch budget (their VeCore voting power) on a pod.
    function vote(uint256 podId, uint256 votes, bool upVote) external {
        address owner = _requireOwner(podId);
        Pod storage pod = _pods[podId];
        uint256 epoch = veCore.currentEpoch();
        if (!_validAt(pod, epoch)) revert PodNotValid(podId, epoch);
        if (owner == msg.sender) revert CannotVoteOwnPod(podId);
        if (!subnetManager.hasSubnetAccess(pod.subnetId, msg.sender)) revert NoSubnetAccess(pod.subnetId, msg.sender);
        if (votes == 0) revert ZeroVotes();
        uint256 power = veCore.votingPowerOf(msg.sender);
        uint256 cast = votesCastedByVoterForEpoch[msg.sender][epoch] + votes;
        if (cast > power) revert InsufficientVotingPower();
        votesCastedByVoterForEpoch[msg.sender][epoch] = cast;

        uint256 netBefore = _positiveNet(podId, epoch);
        if (upVote) {
            podUpVotes[podId][epoch] += votes;
            voterUpVotes[msg.sender][podId][epoch] += votes;
        } else {
            podDownVotes[podId][epoch] += votes;
            voterDownVotes[msg.sender][podId][epoch] += votes;
        }
        podEpochSubnet[podId][epoch] = pod.subnetId;
        subnetPositiveNetVotes[pod.subnetId][epoch] =
            subnetPositiveNetVotes[pod.subnetId][epoch] - netBefore + _positiveNet(podId, epoch);
        emit Voted(podId, msg.sender, pod.subnetId, epoch, votes, upVote, power);
    }

    // ---- moderation ----

    function invalidatePod(uint256 podId, string calldata reason) external onlyRole(MODERATOR_ROLE) {
        _requireOwner(podId);
        Pod storage pod = _pods[podId];
        if (pod.invalidFromEpoch != 0) revert PodAlreadyInvalid(podId);
        uint256 epoch = veCore.currentEpoch();
        pod.invalidFromEpoch = epoch;
        uint256 votedIn = podEpochSubnet[podId][epoch];
        if (votedIn != 0) subnetPositiveNetVotes[votedIn][epoch] -= _positiveNet(podId, epoch);
        emit PodInvalidated(podId, epoch, msg.sender, reason);
    }

    function setPodValidityPeriod(uint256 epochs) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (epochs == 0) revert InvalidValidityPeriod();
        podValidityPeriod = epochs;
        emit PodValidityPeriodSet(epochs);
    }

    // ---- emissions ----

    /// @notice What the pod owner's claim for `epoch` pays now (0 once claimed or while the epoch is open).
    function podOwnerClaimable(uint256 podId, uint256 epoch) public view returns (uint256 coreAmount, uint256 primaryAmount) {
        if (_podOwnerClaimed[podId][epoch] || epoch >= veCore.currentEpoch()) return (0, 0);
        (uint256 c, uint256 p) = podEmissions(podId, epoch);
        return (EmissionMath.ownerShare(c), EmissionMath.ownerShare(p));
    }

    /// @notice What `voter`'s claim on `podId` for `epoch` pays now.
    function voterClaimable(address voter, uint256 podId, uint256 epoch)
        public
        view
        returns (uint256 coreAmount, uint256 primaryAmount)
    {
        if (_voterClaimed[voter][podId][epoch] || epoch >= veCore.currentEpoch()) return (0, 0);
        uint256 up = voterUpVotes[voter][podId][epoch];
        uint256 podUp = podUpVotes[podId][epoch];
        (uint256 c, uint256 p) = podEmissions(podId, epoch);
        return (EmissionMath.voterShare(c, up, podUp), EmissionMath.voterShare(p, up, podUp));
    }

    /// @notice The pod's whole share of its datanet's emissions for `epoch` (owner and voters together).
    function podEmissions(uint256 podId, uint256 epoch) public view returns (uint256 coreAmount, uint256 primaryAmount) {
        uint256 subnetId = podEpochSubnet[podId][epoch];
        if (subnetId == 0 || !_validAt(_pods[podId], epoch)) return (0, 0);
        uint256 podNet = _positiveNet(podId, epoch);
        uint256 subnetNet = subnetPositiveNetVotes[subnetId][epoch];
        (uint256 c, uint256 p) = subnetManager.emissionsPerEpochAt(subnetId, epoch);
        return (EmissionMath.podShare(c, podNet, subnetNet), EmissionMath.podShare(p, podNet, subnetNet));
    }

    /// @notice Pays the pod owner's share for a closed epoch to the pod's current owner, whoever sends it.
    function claimPodOwnerEmissions(uint256 podId, uint256 epoch) external {
        address owner = _requireOwner(podId);
        _requireClosed(epoch);
        if (_podOwnerClaimed[podId][epoch]) revert AlreadyClaimed(podId, epoch, owner);
        (uint256 c, uint256 p) = podOwnerClaimable(podId, epoch);
        if (c == 0 && p == 0) revert NothingToClaim(podId, epoch, owner);
        _podOwnerClaimed[podId][epoch] = true;
        uint256 subnetId = podEpochSubnet[podId][epoch];
        subnetManager.payEmissions(subnetId, owner, c, p);
        emit PodOwnerEmissionsClaimed(podId, epoch, owner, subnetId, msg.sender, c, p);
    }

    /// @notice Pays `voter`'s share for a closed epoch to the voter, whoever sends it.
    function claimVoterEmissions(address voter, uint256 podId, uint256 epoch) external {
        _requireOwner(podId);
        _requireClosed(epoch);
        if (_voterClaimed[voter][podId][epoch]) revert AlreadyClaimed(podId, epoch, voter);
        (uint256 c, uint256 p) = voterClaimable(voter, podId, epoch);
        if (c == 0 && p == 0) revert NothingToClaim(podId, epoch, voter);
        _voterClaimed[voter][podId][epoch] = true;
        uint256 subnetId = podEpochSubnet[podId][epoch];
        subnetManager.payEmissions(subnetId, voter, c, p);
        emit VoterEmissionsClaimed(podId, epoch, voter, subnetId, msg.sender, c, p);
    }

    // ---- views ----

    function getPod(uint256 podId) external view returns (Pod memory) {
        _requireOwner(podId);
        return _pods[podId];
    }

    /// @notice Whether the pod owner's share for `epoch` has been claimed. Epoch first, as on the live contracts.
    function hasPodOwnerClaimedEmissions(uint256 epoch, uint256 podId) external view returns (bool) {
        return _podOwnerClaimed[podId][epoch];
    }

    /// @notice Whether `user`'s voter share on `podId` for `epoch` has been claimed (live signature).
    function hasUserClaimedEmissions(uint256 epoch, uint256 podId, address user) external view returns (bool) {
        return _voterClaimed[user][podId][epoch];
    }

    /// @notice = podUpVotes(podId, epoch), in the live contracts' argument order.
    function getPodUpVotesOfEpoch(uint256 epoch, uint256 podId) external view returns (uint256) {
        return podUpVotes[podId][epoch];
    }

    /// @notice = podDownVotes(podId, epoch), in the live contracts' argument order.
    function getPodDownVotesOfEpoch(uint256 epoch, uint256 podId) external view returns (uint256) {
        return podDownVotes[podId][epoch];
    }

    /// @notice = voterUpVotes(voter, podId, epoch), in the live contracts' argument order.
    function getVotersUpVotesForPodInEpoch(uint256 epoch, uint256 podId, address voter) external view returns (uint256) {
        return voterUpVotes[voter][podId][epoch];
    }

    /// @notice = voterDownVotes(voter, podId, epoch), in the live contracts' argument order.
    function getVotersDownVotesForPodInEpoch(uint256 epoch, uint256 podId, address voter)
        external
        view
        returns (uint256)
    {
        return voterDownVotes[voter][podId][epoch];
    }

    /// @notice What is left of the datanet's primary-token emission pool (seeds minus emissions paid),
    /// = the second value of SubnetManager.emissionPool(subnetId). On PodManager, as on the live contracts.
    function getSubnetPrimaryTokenSeedings(uint256 subnetId) external view returns (uint256) {
        (, uint256 primaryPool) = subnetManager.emissionPool(subnetId);
        return primaryPool;
    }

    /// @notice What is left of the datanet's CORE emission pool (seeds minus emissions paid), = the
    /// first value of SubnetManager.emissionPool(subnetId), under the live contracts' token name.
    function getSubnetReppoSeedings(uint256 subnetId) external view returns (uint256) {
        (uint256 corePool,) = subnetManager.emissionPool(subnetId);
        return corePool;
    }

    function getPodValidityEpoch(uint256 podId) external view returns (uint256) {
        return _pods[podId].validityEpoch;
    }

    function podSubnet(uint256 podId) external view returns (uint256) {
        return _pods[podId].subnetId;
    }

    function podValid(uint256 podId) external view returns (bool) {
        return _ownerOf(podId) != address(0) && _validAt(_pods[podId], veCore.currentEpoch());
    }

    function podValidAt(uint256 podId, uint256 epoch) external view returns (bool) {
        return _ownerOf(podId) != address(0) && _validAt(_pods[podId], epoch);
    }

    function supportsInterface(bytes4 interfaceId) public view override(ERC721, AccessControl) returns (bool) {
        return super.supportsInterface(interfaceId);
    }

    // ---- internals ----

    function _mintPodWithCORE(address to, uint256 subnetId) private returns (uint256 podId) {
        _requireSubnet(subnetId);
        return _mintPod(to, subnetId, address(core), subnetManager.publishingFeeCORE(subnetId));
    }

    function _mintPod(address to, uint256 subnetId, address token, uint256 fee) private returns (uint256 podId) {
        uint256 epoch = veCore.currentEpoch();
        podId = nextPodId++;
        uint256 validityEpoch = epoch + podValidityPeriod - 1;
        _pods[podId] = Pod(subnetId, epoch, validityEpoch, 0);
        _mint(to, podId);
        _chargeFee(subnetId, FeeSplit.FeeKind.Publishing, token, fee);
        emit PodMinted(podId, to, subnetId, msg.sender, token, fee, epoch, validityEpoch);
    }

    function _chargeFee(uint256 subnetId, FeeSplit.FeeKind kind, address token, uint256 fee) private {
        if (fee == 0) return;
        IERC20(token).safeTransferFrom(msg.sender, address(subnetManager), fee);
        subnetManager.recordPodFee(subnetId, kind, token, msg.sender, fee);
    }

    function _validAt(Pod storage pod, uint256 epoch) private view returns (bool) {
        return pod.mintEpoch != 0 && epoch >= pod.mintEpoch && epoch <= pod.validityEpoch
            && (pod.invalidFromEpoch == 0 || epoch < pod.invalidFromEpoch);
    }

    function _positiveNet(uint256 podId, uint256 epoch) private view returns (uint256) {
        return EmissionMath.positiveNet(podUpVotes[podId][epoch], podDownVotes[podId][epoch]);
    }

    function _requireOwner(uint256 podId) private view returns (address owner) {
        owner = _ownerOf(podId);
        if (owner == address(0)) revert UnknownPod(podId);
    }

    function _requireSubnet(uint256 subnetId) private view {
        if (!subnetManager.validSubnet(subnetId)) revert UnknownSubnet(subnetId);
    }

    function _requireClosed(uint256 epoch) private view {
        if (epoch == 0 || epoch >= veCore.currentEpoch()) revert EpochNotClosed(epoch);
    }
}
