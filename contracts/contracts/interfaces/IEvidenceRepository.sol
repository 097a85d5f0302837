// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title Trustpoint asset evidence repository
/// @notice Records the evidences of tracked assets: one hash per (assetHash, timestamp).
/// @dev Records are stored under `key = keccak256(abi.encodePacked(assetHash, timestamp))`, where
/// `assetHash` is the 64-character lowercase hexadecimal string; anyone who knows an asset's hash
/// and an evidence's timestamp reads the evidence back with `getEvidence`.
interface IEvidenceRepository {
    /// @notice One evidence to register.
    /// @param key `evidenceKey(assetHash, timestamp)`.
    /// @param hash The evidence hash (SHA-256 digest) as a 32-byte word.
    struct EvidenceRecord {
        bytes32 key;
        bytes32 hash;
    }

    /// @notice Emitted when an evidence is recorded.
    /// @param key `evidenceKey(assetHash, timestamp)`.
    /// @param hash The evidence hash, indexed so that anyone holding a hash can find its record.
    event EvidenceRegistered(bytes32 indexed key, bytes32 indexed hash);

    /// @notice Thrown when no evidence is recorded for the requested asset hash and timestamp.
    /// @dev Selector 0x09cea733, relied upon by verifiers; never rename.
    error EvidenceNotFound_7QF74();

    /// @notice Thrown when a key already holds a different hash.
    /// @param key The key of the rejected record.
    error EvidenceConflict(bytes32 key);

    /// @notice Thrown when a record's hash is zero, which is reserved for "not recorded".
    /// @param key The key of the rejected record.
    error EvidenceHashEmpty(bytes32 key);

    /// @notice Records one evidence. Re-sending an identical record is a no-op.
    /// @param key `evidenceKey(assetHash, timestamp)`.
    /// @param hash The evidence hash.
    function registerEvidence(bytes32 key, bytes32 hash) external;

    /// @notice Records a batch of evidences, emitting one event per new record. Records already
    /// recorded identically are skipped, so a sender that crashed can re-send the whole batch.
    /// @param records The evidences to record.
    function registerEvidences(EvidenceRecord[] calldata records) external;

    /// @notice Reads an evidence.
    /// @param assetHash The asset hash, 64 lowercase hexadecimal characters.
    /// @param timestamp The evidence timestamp, in seconds since the epoch.
    /// @return hash The evidence hash as 64 lowercase hexadecimal characters, without `0x`.
    function getEvidence(
        string calldata assetHash,
        uint256 timestamp
    ) external view returns (string memory hash);

    /// @notice Reads an evidence by key; zero means nothing is recorded.
    /// @param key `evidenceKey(assetHash, timestamp)`.
    /// @return hash The evidence hash, or zero.
    function evidenceOf(bytes32 key) external view returns (bytes32 hash);

    /// @notice The storage key of an evidence.
    /// @param assetHash The asset hash, 64 lowercase hexadecimal characters.
    /// @param timestamp The evidence timestamp, in seconds since the epoch.
    /// @return The key, `keccak256(abi.encodePacked(assetHash, timestamp))`.
    function evidenceKey(
        string calldata assetHash,
        uint256 timestamp
    ) external pure returns (bytes32);
}
