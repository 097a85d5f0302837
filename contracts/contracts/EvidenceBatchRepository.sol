// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

import {IEvidenceBatchRepository} from "./interfaces/IEvidenceBatchRepository.sol";
import {Hex} from "./libraries/Hex.sol";
import {RecordBatches} from "./libraries/RecordBatches.sol";
import {RecordKey} from "./libraries/RecordKey.sol";

/// @title Trustpoint asset evidence repository, batches kept as contract code
/// @notice Write-once store of asset evidences, written by registrars and read by anyone.
/// @dev Timestamps are seconds: buckets of 16 s, the offsets within a bucket in seconds.
contract EvidenceBatchRepository is IEvidenceBatchRepository, RecordBatches {
    /// @param admin Account that manages roles.
    /// @param registrar Account allowed to record evidences.
    constructor(address admin, address registrar) RecordBatches(admin, registrar) {}

    /// @inheritdoc IEvidenceBatchRepository
    function registerEvidence(bytes32 key, bytes32 hash, uint256 timestamp) external {
        _registerSlot(_registrarState(), 0, key, hash, timestamp);
    }

    /// @inheritdoc IEvidenceBatchRepository
    function registerEvidences(EvidenceSlotRecord[] calldata records) external {
        uint256 state = _registrarState();
        for (uint256 i = 0; i < records.length; ++i) {
            EvidenceSlotRecord calldata record = records[i];
            _registerSlot(state, i, record.key, record.hash, record.timestamp);
        }
    }

    /// @inheritdoc IEvidenceBatchRepository
    function registerEvidenceBatch(
        bytes calldata records,
        uint256[] calldata buckets
    ) external returns (uint256) {
        (uint256 number, address data, bool written) = _writeBatch(
            _registrarState(),
            records,
            buckets
        );
        if (written) emit EvidenceBatchRecorded(number, data, records.length / _RECORD_BYTES);
        return number;
    }

    /// @inheritdoc IEvidenceBatchRepository
    function getEvidence(
        string calldata assetHash,
        uint256 timestamp
    ) external view returns (string memory hash) {
        (bool found, bytes32 stored, ) = _find(RecordKey.derive(assetHash, timestamp), timestamp);
        if (!found) revert EvidenceNotFound_7QF74();
        return Hex.toHexString(stored);
    }

    /// @inheritdoc IEvidenceBatchRepository
    function findEvidence(
        bytes32 key,
        uint256 timestamp
    ) external view returns (bool found, bytes32 hash) {
        (found, hash, ) = _find(key, timestamp);
    }

    /// @inheritdoc IEvidenceBatchRepository
    function evidenceKey(
        string calldata assetHash,
        uint256 timestamp
    ) external pure returns (bytes32) {
        return RecordKey.derive(assetHash, timestamp);
    }

    /// @inheritdoc IEvidenceBatchRepository
    function bucketOf(uint256 timestamp) external pure returns (uint256 bucket, uint256 offset) {
        return _bucketOf(timestamp);
    }

    function _bucketOf(
        uint256 timestamp
    ) internal pure override returns (uint256 bucket, uint256 offset) {
        return (timestamp >> 4, timestamp & 15);
    }

    function _registerSlot(
        uint256 state,
        uint256 index,
        bytes32 key,
        bytes32 hash,
        uint256 timestamp
    ) private {
        if (hash == 0) revert RecordHashEmpty(index);
        bool written = _writeSlot(state, key, hash, 0, timestamp, EvidenceConflict.selector);
        if (written) emit EvidenceRecorded(key, hash);
    }
}
