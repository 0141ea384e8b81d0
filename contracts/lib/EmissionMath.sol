// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice How a datanet's emissions for a closed epoch reach pod owners and voters.
/// 1. A valid pod's share is proportional to its positive net votes (up - down, floored at 0)
///    over the sum of positive net votes of the datanet's valid pods in that epoch.
/// 2. The pod owner receives OWNER_SHARE_BPS (50%) of the pod's share.
/// 3. The rest goes to the pod's up-voters pro rata to their up-votes.
/// Every division rounds down: per epoch and datanet at most (pods + voters) wei stay unpaid.
library EmissionMath {
    uint256 internal constant BPS = 10_000;
    uint256 internal constant OWNER_SHARE_BPS = 5_000;

    function positiveNet(uint256 up, uint256 down) internal pure returns (uint256) {
        return up > down ? up - down : 0;
    }

    function podShare(uint256 subnetEmission, uint256 podNet, uint256 subnetNet) internal pure returns (uint256) {
        if (subnetNet == 0) return 0;
        return (subnetEmission * podNet) / subnetNet;
    }

    function ownerShare(uint256 podEmission) internal pure returns (uint256) {
        return (podEmission * OWNER_SHARE_BPS) / BPS;
    }

    function voterShare(uint256 podEmission, uint256 voterUp, uint256 podUp) internal pure returns (uint256) {
        if (podUp == 0) return 0;
        return ((podEmission - ownerShare(podEmission)) * voterUp) / podUp;
    }
}
