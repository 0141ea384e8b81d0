// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The one voting-power rule of the protocol.
/// A lock of `amount` CORE committed for `duration` seconds earns
/// `amount * duration / maxDuration` points, fixed when the lock is made or changed
/// (it does not decay), and counts while the lock has not expired.
library VotingPower {
    function points(uint256 amount, uint256 duration, uint256 maxDuration) internal pure returns (uint256) {
        return (amount * duration) / maxDuration;
    }
}
