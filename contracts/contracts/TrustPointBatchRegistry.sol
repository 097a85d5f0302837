// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

import {ITrustPointBatchRegistry} from "./interfaces/ITrustPointBatchRegistry.sol";
import {Hex} from "./libraries/Hex.sol";
import {RecordBatches} from "./libraries/RecordBatches.sol";
import {RecordKey} from "./libraries/RecordKey.sol";

/// @title Trustpoint certificate registry, batches kept as contract code
/// @notice Write-once store of certificate trustpoints, written by registrars and read by anyone.
/// @dev Timestamps are milliseconds: buckets of 1,024 ms, so the offsets within a bucket tell
/// concurrent batches apart.
contract TrustPointBatchRegistry is ITrustPointBatchRegistry, RecordBatches {
    /// @param admin Account that manages roles.
    /// @param registrar Account allowed to record trustpoints.
    constructor(address admin, address registrar) RecordBatches(admin, registrar) {}

    /// @inheritdoc ITrustPointBatchRegistry
    function registerTrustPoint(
        bytes32 key,
        bytes32 hash,
        TrustPointType trustPointType,
        uint256 timestamp
    ) external {
        _registerSlot(_registrarState(), 0, key, hash, trustPointType, timestamp);
    }

    /// @inheritdoc ITrustPointBatchRegistry
    function registerTrustPoints(TrustPointSlotRecord[] calldata records) external {
        uint256 state = _registrarState();
        for (uint256 i = 0; i < records.length; ++i) {
            TrustPointSlotRecord calldata record = records[i];
            _registerSlot(
                state,
                i,
                record.key,
                record.hash,
                record.trustPointType,
                record.timestamp
            );
        }
    }

    /// @inheritdoc ITrustPointBatchRegistry
    function registerTrustPointBatch(
        bytes calldata records,
        uint256[] calldata buckets
    ) external returns (uint256) {
        (uint256 number, address data, bool written) = _writeBatch(
            _registrarState(),
            records,
            buckets
        );
        if (written) emit TrustPointBatchRecorded(number, data, records.length / _RECORD_BYTES);
        return number;
    }

    /// @inheritdoc ITrustPointBatchRegistry
    function getTrustPoint(
        string calldata certId,
        uint256 timestamp
    ) external view returns (string memory hash, TrustPointType trustPointType) {
        (bool found, bytes32 stored, uint256 recordType) = _find(
            RecordKey.derive(certId, timestamp),
            timestamp
        );
        if (!found) revert TrustPointNotFound_6Gr6z8();
        return (Hex.toHexString(stored), TrustPointType(recordType));
    }

    /// @inheritdoc ITrustPointBatchRegistry
    function findTrustPoint(
        bytes32 key,
        uint256 timestamp
    ) external view returns (bool found, bytes32 hash, TrustPointType trustPointType) {
        uint256 recordType;
        (found, hash, recordType) = _find(key, timestamp);
        trustPointType = TrustPointType(recordType);
    }

    /// @inheritdoc ITrustPointBatchRegistry
    function trustPointKey(
        string calldata certId,
        uint256 timestamp
    ) external pure returns (bytes32) {
        return RecordKey.derive(certId, timestamp);
    }

    /// @inheritdoc ITrustPointBatchRegistry
    function bucketOf(uint256 timestamp) external pure returns (uint256 bucket, uint256 offset) {
        return _bucketOf(timestamp);
    }

    function _bucketOf(
        uint256 timestamp
    ) internal pure override returns (uint256 bucket, uint256 offset) {
        return (timestamp >> 10, timestamp & 1023);
    }

    function _registerSlot(
        uint256 state,
        uint256 index,
        bytes32 key,
        bytes32 hash,
        TrustPointType trustPointType,
        uint256 timestamp
    ) private {
        if (hash == 0) revert RecordHashEmpty(index);
        bool written = _writeSlot(
            state,
            key,
            hash,
            uint256(trustPointType),
            timestamp,
            TrustPointConflict.selector
        );
        if (written) emit TrustPointRecorded(key, hash, trustPointType);
    }
}
