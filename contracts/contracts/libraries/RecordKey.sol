// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title Storage keys of Trustpoint records
/// @notice A record is identified by a string (certID or asset hash) and a timestamp. Packing the
/// string before a fixed-size word is unambiguous, so distinct pairs never share a key.
library RecordKey {
    /// @notice `keccak256(abi.encodePacked(id, timestamp))`.
    /// @param id The certID or asset hash, as UTF-8.
    /// @param timestamp The record timestamp.
    /// @return The record key.
    function derive(string calldata id, uint256 timestamp) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked(id, timestamp));
    }
}
