// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Fixed split of every protocol fee into three destinations.
/// Creation fees: 50% performance pool, 25% burnt, 25% locked.
/// Access, publishing and republishing fees: 10% performance pool, 45% burnt, 45% locked.
/// `locked` takes the rounding remainder, so the three parts always sum to the fee.
library FeeSplit {
    enum FeeKind {
        Creation,
        Access,
        Publishing,
        Republishing
    }

    uint256 internal constant BPS = 10_000;

    function split(FeeKind kind, uint256 amount)
        internal
        pure
        returns (uint256 burnt, uint256 toPerformancePool, uint256 locked)
    {
        (uint256 poolBps, uint256 burnBps) = kind == FeeKind.Creation ? (5_000, 2_500) : (1_000, 4_500);
        toPerformancePool = (amount * poolBps) / BPS;
        burnt = (amount * burnBps) / BPS;
        locked = amount - toPerformancePool - burnt;
    }
}
