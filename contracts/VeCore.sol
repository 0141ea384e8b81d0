// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EnumerableSet} from "@openzeppelin/contracts/utils/structs/EnumerableSet.sol";
import {VotingPower} from "./lib/VotingPower.sol";

/// @notice Lock positions of CORE (one ERC-721 per lock) and the protocol's epoch clock.
/// Epochs are numbered from 1: epoch e covers [genesis + (e-1) * epochLength, genesis + e * epochLength).
contract VeCore is ERC721, Ownable {
    using SafeERC20 for IERC20;
    using EnumerableSet for EnumerableSet.UintSet;

    struct Lockup {
        uint256 amount;
        uint256 expiresAt;
        uint256 votingPower;
    }

    IERC20 public immutable core;
    uint256 public immutable genesis;
    uint256 public immutable epochLength;
    uint256 public immutable minStakeDuration;
    uint256 public immutable maxStakeDuration;

    uint256 public nextLockupId = 1;
    mapping(uint256 lockupId => Lockup) private _lockups;
    mapping(address owner => EnumerableSet.UintSet) private _locksOf;
    mapping(address account => bool) public isGovernanceAccount;

    event Staked(
        uint256 indexed lockupId,
        address indexed owner,
        uint256 amount,
        uint256 duration,
        uint256 expiresAt,
        uint256 votingPower
    );
    event StakeIncreased(
        uint256 indexed lockupId, address indexed owner, uint256 addedAmount, uint256 amount, uint256 votingPower
    );
    event LockExtended(uint256 indexed lockupId, address indexed owner, uint256 expiresAt, uint256 votingPower);
    event Withdrawn(uint256 indexed lockupId, address indexed owner, address indexed to, uint256 amount);
    event GovernanceAccountSet(address indexed account, bool isGovernance);

    error ZeroAmount();
    error InvalidDuration(uint256 duration, uint256 minDuration, uint256 maxDuration);
    error NotLockOwner(uint256 lockupId, address caller);
    error LockExpired(uint256 lockupId, uint256 expiresAt);
    error LockNotExpired(uint256 lockupId, uint256 expiresAt);
    error InvalidEpoch(uint256 epoch);
    error InvalidEpochLength();

    constructor(IERC20 core_, uint256 epochLength_, uint256 minStakeDuration_, uint256 maxStakeDuration_, address owner_)
        ERC721("Vote-escrowed CORE", "veCORE")
        Ownable(owner_)
    {
        if (epochLength_ == 0) revert InvalidEpochLength();
        if (minStakeDuration_ == 0 || minStakeDuration_ > maxStakeDuration_) {
            revert InvalidDuration(minStakeDuration_, minStakeDuration_, maxStakeDuration_);
        }
        core = core_;
        genesis = block.timestamp;
        epochLength = epochLength_;
        minStakeDuration = minStakeDuration_;
        maxStakeDuration = maxStakeDuration_;
    }

    // ---- epoch clock ----

    function currentEpoch() public view returns (uint256) {
        return (block.timestamp - genesis) / epochLength + 1;
    }

    function epochStart(uint256 epoch) public view returns (uint256) {
        if (epoch == 0) revert InvalidEpoch(epoch);
        return genesis + (epoch - 1) * epochLength;
    }

    /// @notice First second after `epoch`: the epoch is closed once block.timestamp >= epochEnd(epoch).
    function epochEnd(uint256 epoch) public view returns (uint256) {
        if (epoch == 0) revert InvalidEpoch(epoch);
        return genesis + epoch * epochLength;
    }

    function currentEpochEnd() external view returns (uint256) {
        return epochEnd(currentEpoch());
    }

    // ---- locks ----

    function previewPoints(uint256 amount, uint256 duration) public view returns (uint256 points, uint256 end) {
        _checkDuration(duration);
        return (VotingPower.points(amount, duration, maxStakeDuration), block.timestamp + duration);
    }

    function stake(uint256 amount, uint256 duration) external returns (uint256 lockupId) {
        if (amount == 0) revert ZeroAmount();
        (uint256 power, uint256 expiresAt) = previewPoints(amount, duration);
        lockupId = nextLockupId++;
        _lockups[lockupId] = Lockup(amount, expiresAt, power);
        core.safeTransferFrom(msg.sender, address(this), amount);
        _mint(msg.sender, lockupId);
        emit Staked(lockupId, msg.sender, amount, duration, expiresAt, power);
    }

    function stakeMore(uint256 lockupId, uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        Lockup storage lock = _ownedLive(lockupId);
        lock.amount += amount;
        lock.votingPower += VotingPower.points(amount, lock.expiresAt - block.timestamp, maxStakeDuration);
        core.safeTransferFrom(msg.sender, address(this), amount);
        emit StakeIncreased(lockupId, msg.sender, amount, lock.amount, lock.votingPower);
    }

    /// @notice Moves the expiry `duration` seconds later (from now if already expired);
    /// the lock's points are recomputed over the whole remaining time.
    function extendLock(uint256 lockupId, uint256 duration) external {
        if (duration == 0) revert InvalidDuration(duration, minStakeDuration, maxStakeDuration);
        Lockup storage lock = _owned(lockupId);
        uint256 base = lock.expiresAt > block.timestamp ? lock.expiresAt : block.timestamp;
        uint256 remaining = base + duration - block.timestamp;
        _checkDuration(remaining);
        lock.expiresAt = base + duration;
        lock.votingPower = VotingPower.points(lock.amount, remaining, maxStakeDuration);
        emit LockExtended(lockupId, msg.sender, lock.expiresAt, lock.votingPower);
    }

    function withdraw(uint256 lockupId, address to) external {
        Lockup memory lock = _owned(lockupId);
        if (block.timestamp < lock.expiresAt) revert LockNotExpired(lockupId, lock.expiresAt);
        delete _lockups[lockupId];
        _burn(lockupId);
        core.safeTransfer(to, lock.amount);
        emit Withdrawn(lockupId, msg.sender, to, lock.amount);
    }

    /// @notice The lock's amount, expiry and points (all 0 for an unknown or withdrawn lock), in the live
    /// contracts' 4-value layout: `unused` is a placeholder kept for that layout and is always 0.
    function lockupData(uint256 lockupId)
        external
        view
        returns (uint256 amount, uint256 expiresAt, uint256 unused, uint256 votingPower)
    {
        Lockup memory lock = _lockups[lockupId];
        return (lock.amount, lock.expiresAt, 0, lock.votingPower);
    }

    /// @notice Sum of the points of `account`'s unexpired locks.
    function votingPowerOf(address account) external view returns (uint256 power) {
        EnumerableSet.UintSet storage ids = _locksOf[account];
        uint256 n = ids.length();
        for (uint256 i = 0; i < n; i++) {
            Lockup storage lock = _lockups[ids.at(i)];
            if (lock.expiresAt > block.timestamp) power += lock.votingPower;
        }
    }

    function setGovernanceAccount(address account, bool isGovernance) external onlyOwner {
        isGovernanceAccount[account] = isGovernance;
        emit GovernanceAccountSet(account, isGovernance);
    }

    // ---- internals ----

    function _checkDuration(uint256 duration) private view {
        if (duration < minStakeDuration || duration > maxStakeDuration) {
            revert InvalidDuration(duration, minStakeDuration, maxStakeDuration);
        }
    }

    function _owned(uint256 lockupId) private view returns (Lockup storage) {
        if (_ownerOf(lockupId) != msg.sender) revert NotLockOwner(lockupId, msg.sender);
        return _lockups[lockupId];
    }

    function _ownedLive(uint256 lockupId) private view returns (Lockup storage lock) {
        lock = _owned(lockupId);
        if (lock.expiresAt <= block.timestamp) revert LockExpired(lockupId, lock.expiresAt);
    }

    function _update(address to, uint256 tokenId, address auth) internal override returns (address from) {
        from = super._update(to, tokenId, auth);
        if (from != address(0)) _locksOf[from].remove(tokenId);
        if (to != address(0)) _locksOf[to].add(tokenId);
    }
}
