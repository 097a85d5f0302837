// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

import {IRecordBatches} from "./IRecordBatches.sol";
import {IRegistryGeneration} from "./IRegistryGeneration.sol";

/// @title Trustpoint asset evidence repository, batches kept as contract code
/// @notice Records the evidences of tracked assets: one hash per (assetHash, timestamp). Reads are
/// those of `IEvidenceRepository` (same `getEvidence`, output and revert data); writes name each
/// record's timestamp, which places it in a time bucket.
/// @dev `key = keccak256(abi.encodePacked(assetHash, timestamp))`. Small batches are stored one
/// slot per record (`registerEvidence(s)`); large ones as the code of a data contract
/// (`registerEvidenceBatch`), 48 bytes a record. See `RecordBatches` for the layout.
interface IEvidenceBatchRepository is IRecordBatches, IRegistryGeneration {
    /// @notice One evidence to store in a slot.
    /// @param key `evidenceKey(assetHash, timestamp)`.
    /// @param hash The evidence hash (SHA-256 digest) as a 32-byte word.
    /// @param timestamp The evidence timestamp, in seconds since the epoch.
    struct EvidenceSlotRecord {
        bytes32 key;
        bytes32 hash;
        uint256 timestamp;
    }

    /// @notice Emitted when an evidence is stored in a slot.
    /// @param key `evidenceKey(assetHash, timestamp)`.
    /// @param hash The evidence hash.
    event EvidenceRecorded(bytes32 key, bytes32 hash);

    /// @notice Emitted when a batch is stored as a data contract; its records are the contract's
    /// code after the first byte, 48 bytes each: the key's top 126 bits and two zero bits
    /// (16 bytes), then the hash.
    /// @param batch The batch number (0-based).
    /// @param records The data contract.
    /// @param count Number of records.
    // solhint-disable-next-line gas-indexed-events
    event EvidenceBatchRecorded(uint256 indexed batch, address records, uint256 count);

    /// @notice Thrown when no evidence is recorded for the requested asset hash and timestamp.
    /// @dev Selector 0x09cea733, relied upon by verifiers; never rename.
    error EvidenceNotFound_7QF74();

    /// @notice Thrown when a slot already holds a different hash under a key.
    /// @param key The key of the rejected record.
    error EvidenceConflict(bytes32 key);

    /// @notice Stores one evidence in a slot. Re-sending an identical record is a no-op.
    /// @param key `evidenceKey(assetHash, timestamp)`.
    /// @param hash The evidence hash.
    /// @param timestamp The evidence timestamp, in seconds since the epoch.
    function registerEvidence(bytes32 key, bytes32 hash, uint256 timestamp) external;

    /// @notice Stores a small batch of evidences in slots, one event per new record. Records
    /// already stored identically are skipped, so a sender that crashed can re-send the batch.
    /// @param records The evidences.
    function registerEvidences(EvidenceSlotRecord[] calldata records) external;

    /// @notice Stores a batch of evidences as the code of a new data contract. A batch identical to
    /// one already stored (same records, same first bucket word), as a sender re-signs after a
    /// crash, is not stored again: no event, and the earlier batch number is returned.
    /// @param records 48 bytes a record: `bytes16(key) with its low 2 bits cleared`, then the
    /// hash; strictly ascending by the key's top 126 bits; 1 to `MAX_BATCH_RECORDS` records.
    /// @param buckets One word per distinct bucket of the records' timestamps (`bucketOf`):
    /// `bucket << 32 | minOffset << 16 | maxOffset`, the offsets of its first and last record.
    /// @return The batch number.
    function registerEvidenceBatch(
        bytes calldata records,
        uint256[] calldata buckets
    ) external returns (uint256);

    /// @notice Reads an evidence.
    /// @param assetHash The asset hash, 64 lowercase hexadecimal characters.
    /// @param timestamp The evidence timestamp, in seconds since the epoch.
    /// @return hash The evidence hash as 64 lowercase hexadecimal characters, without `0x`.
    function getEvidence(
        string calldata assetHash,
        uint256 timestamp
    ) external view returns (string memory hash);

    /// @notice Reads an evidence by key and timestamp, without reverting.
    /// @param key `evidenceKey(assetHash, timestamp)`.
    /// @param timestamp The evidence timestamp, in seconds since the epoch.
    /// @return found Whether an evidence is recorded.
    /// @return hash The evidence hash, or zero.
    function findEvidence(
        bytes32 key,
        uint256 timestamp
    ) external view returns (bool found, bytes32 hash);

    /// @notice The storage key of an evidence.
    /// @param assetHash The asset hash, 64 lowercase hexadecimal characters.
    /// @param timestamp The evidence timestamp, in seconds since the epoch.
    /// @return The key, `keccak256(abi.encodePacked(assetHash, timestamp))`.
    function evidenceKey(
        string calldata assetHash,
        uint256 timestamp
    ) external pure returns (bytes32);

    /// @notice The time bucket of a timestamp: 16 s each.
    /// @param timestamp The evidence timestamp, in seconds since the epoch.
    /// @return bucket `timestamp >> 4`.
    /// @return offset `timestamp & 15`.
    function bucketOf(uint256 timestamp) external pure returns (uint256 bucket, uint256 offset);
}
