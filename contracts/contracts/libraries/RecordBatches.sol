// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {LibRLP} from "solady/src/utils/LibRLP.sol";
import {IRecordBatches} from "../interfaces/IRecordBatches.sol";
import {RegistryGeneration} from "./RegistryGeneration.sol";

/// @title Records kept in slots (small batches) and in the code of data contracts (large ones)
/// @notice Shared storage of the batch registries. A record is a 32-byte key, a 32-byte hash and a
/// 2-bit type, read back with the key and the timestamp the key was derived from.
/// @dev Two media, chosen per batch by the registrar (by measured gas: slots below
/// `SLOT_BATCH_LIMIT` records, data contracts above):
///
/// - Slots: `_slotHashes[keccak256(key, bucket)] = hash` (and the type in `_slotTypes` when not 0).
/// - Data contracts (SSTORE2-style): code = `0x00` (STOP, so a call does nothing) then 48 bytes a
///   record, `tag (16 bytes) || hash (32 bytes)`, where `tag = (key >> 128)` with its low 2 bits
///   replaced by the type; records strictly ascending by `tag >> 2` (the key's top 126 bits), so a
///   lookup binary-searches them. Batch `n` (0-based) is the `n + 1`-th contract this one creates,
///   so its address follows from the CREATE rule and is never stored.
///
/// A time bucket holds a list of 64-bit entries `(batch + 1) << 32 | minOffset << 16 | maxOffset`
/// naming the data batches that hold records of that bucket, with the offsets (within the bucket)
/// of their first and last record there. Its word 0 holds the count in its top 32 bits and entries
/// 0-2; word `w >= 1` holds entries `4w - 1 .. 4w + 2`.
///
/// Write-once: a lookup takes the first match in write order. Within a bucket data entries are
/// only ever appended, and a slot record of bucket `b` is accepted only while no data batch has
/// touched a bucket `>= b` (`_state`'s `maxDataBucket`), so a slot record always precedes every
/// data entry of its bucket and is looked at first. Slot keys include the bucket, so a record
/// written under a wrong bucket can never shadow the record of the right one.
///
/// Sealing (`RegistryGeneration`) clears the cached registrar and is checked on the path every
/// other registrar takes, so a sealed registry refuses every write at no cost to the common one.
abstract contract RecordBatches is IRecordBatches, RegistryGeneration {
    /// @notice Role allowed to record.
    bytes32 public constant REGISTRAR_ROLE = keccak256("REGISTRAR_ROLE");

    /// @notice Most records in one data contract: (EIP-170 24,576 bytes - the STOP byte) / 48.
    uint256 public constant MAX_BATCH_RECORDS = 511;

    /// @notice Bytes per record in a data contract.
    uint256 internal constant _RECORD_BYTES = 48;

    /// @dev One bucket entry: `(batch + 1) << 32 | minOffset << 16 | maxOffset`.
    uint256 private constant _ENTRY_MASK = 0xffffffffffffffff;

    /// @dev `registrar (160 bits) | batchCount << 160 (32 bits) | (maxDataBucket + 1) << 192`:
    /// one cold read answers both "is the sender the registrar" and "may this bucket still take
    /// slot records", which keeps a single record within one fresh slot and one read. `registrar`
    /// caches the last account granted REGISTRAR_ROLE (cleared when revoked); other registrars are
    /// checked through AccessControl.
    uint256 private _state;

    mapping(bytes32 slotKey => bytes32 hash) private _slotHashes;
    mapping(bytes32 slotKey => uint256 recordType) private _slotTypes;
    mapping(uint256 bucket => mapping(uint256 word => uint256 entries)) private _buckets;

    /// @param admin Account that manages roles.
    /// @param registrar Account allowed to record.
    constructor(address admin, address registrar) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(REGISTRAR_ROLE, registrar);
    }

    /// @inheritdoc IRecordBatches
    function batchCount() public view returns (uint256) {
        return uint32(_state >> 160);
    }

    /// @inheritdoc IRecordBatches
    function batchAddress(uint256 batch) public view returns (address) {
        return _createAddress(batch + 1);
    }

    /// @inheritdoc IRecordBatches
    function slotBucketOpen(uint256 bucket) external view returns (bool) {
        // solhint-disable-next-line gas-strict-inequalities
        return bucket >= _state >> 192;
    }

    /// @inheritdoc IRecordBatches
    function bucketBatches(
        uint256 bucket
    )
        external
        view
        returns (uint256[] memory batches, uint256[] memory minOffsets, uint256[] memory maxOffsets)
    {
        mapping(uint256 => uint256) storage words = _buckets[bucket];
        uint256 count = words[0] >> 224;
        batches = new uint256[](count);
        minOffsets = new uint256[](count);
        maxOffsets = new uint256[](count);
        for (uint256 i = 0; i < count; ++i) {
            uint256 entry = _entryAt(words, i);
            batches[i] = (entry >> 32) - 1;
            minOffsets[i] = (entry >> 16) & 0xffff;
            maxOffsets[i] = entry & 0xffff;
        }
    }

    /// @dev Maps a record timestamp to its bucket and its offset within the bucket (< 2^16).
    function _bucketOf(
        uint256 timestamp
    ) internal pure virtual returns (uint256 bucket, uint256 offset);

    /// @dev Reverts unless the sender is a registrar and the registry is not sealed; returns
    /// `_state`. A sealed registry caches no registrar, so every write takes the second branch.
    function _registrarState() internal view returns (uint256 state) {
        state = _state;
        if (address(uint160(state)) != msg.sender) {
            _checkRole(REGISTRAR_ROLE);
            _requireNotSealed();
        }
    }

    /// @dev Writes one record into a slot. Returns false when it was already there identically.
    /// Reverts with `conflict` selector data when another record holds the key.
    function _writeSlot(
        uint256 state,
        bytes32 key,
        bytes32 hash,
        uint256 recordType,
        uint256 timestamp,
        bytes4 conflict
    ) internal returns (bool written) {
        (uint256 bucket, ) = _bucketOf(timestamp);
        if (bucket < state >> 192) revert SlotBucketClosed(bucket);
        bytes32 slotKey = _slotKey(key, bucket);
        bytes32 existing = _slotHashes[slotKey];
        if (existing == 0) {
            _slotHashes[slotKey] = hash;
            if (recordType != 0) _slotTypes[slotKey] = recordType;
            return true;
        }
        if (existing != hash || _slotTypes[slotKey] != recordType) {
            assembly ("memory-safe") {
                mstore(0, conflict)
                mstore(4, key)
                revert(0, 0x24)
            }
        }
        return false;
    }

    /// @dev Deploys `records` as a data contract and indexes it under `buckets`
    /// (`bucket << 32 | minOffset << 16 | maxOffset`, distinct buckets). Returns the batch number,
    /// the data contract and whether it is new: a batch identical to one already written (same
    /// records and first bucket entry, as when a sender signs a batch again after a crash) is not
    /// written twice; its earlier batch number is returned.
    function _writeBatch(
        uint256 state,
        bytes calldata records,
        uint256[] calldata buckets
    ) internal returns (uint256 batch, address data, bool written) {
        uint256 length = records.length;
        // solhint-disable-next-line gas-strict-inequalities
        if (
            length == 0 || length % _RECORD_BYTES != 0 || length > MAX_BATCH_RECORDS * _RECORD_BYTES
        ) revert BatchLengthInvalid(length);
        if (buckets.length == 0) revert BatchBucketsInvalid();
        _checkRecords(records);

        uint256 m;
        bytes32 codeHash;
        assembly ("memory-safe") {
            // SSTORE2's creation code (solady): PUSH2 l, DUP1, PUSH1 0x0a, RETURNDATASIZE,
            // CODECOPY, RETURNDATASIZE, RETURN, then the runtime: STOP and the records. Written
            // here rather than through `SSTORE2.write`: the runtime's hash is needed before the
            // contract is created (to find an identical batch), and a failed creation reverts
            // with this interface's `BatchDeploymentFailed`, not solady's `DeploymentFailed`.
            m := mload(0x40)
            mstore(m, or(0x61000080600a3d393df300, shl(0x40, add(length, 1))))
            calldatacopy(add(m, 0x20), records.offset, length)
            codeHash := keccak256(add(m, 0x1f), add(length, 1))
            // Keep the creation code: the look-up below uses memory too.
            mstore(0x40, add(m, and(add(length, 0x3f), not(0x1f))))
        }
        (bool seen, uint256 earlier) = _findIdentical(buckets[0], codeHash);
        if (seen) return (earlier, _createAddress(earlier + 1), false);

        batch = uint32(state >> 160);
        assembly ("memory-safe") {
            data := create(0, add(m, 0x15), add(length, 0x0b))
        }
        if (data == address(0)) revert BatchDeploymentFailed();

        uint256 maxBucketPlusOne = state >> 192;
        uint256 entryHead = (batch + 1) << 32;
        for (uint256 i = 0; i < buckets.length; ++i) {
            uint256 word = buckets[i];
            uint256 bucket = word >> 32;
            // Bucket numbers above 2^64 - 2 would overflow the state word.
            if (bucket > type(uint64).max - 1) revert BatchBucketsInvalid();
            _append(bucket, entryHead | (word & 0xffffffff));
            // solhint-disable-next-line gas-strict-inequalities
            if (bucket >= maxBucketPlusOne) maxBucketPlusOne = bucket + 1;
        }
        _state = (maxBucketPlusOne << 192) | ((batch + 1) << 160) | uint160(state);
        return (batch, data, true);
    }

    /// @dev Finds a record: the slot record of its bucket first, then the data batches of its
    /// bucket in write order whose offset range holds its timestamp.
    function _find(
        bytes32 key,
        uint256 timestamp
    ) internal view returns (bool found, bytes32 hash, uint256 recordType) {
        (uint256 bucket, uint256 offset) = _bucketOf(timestamp);
        bytes32 slotKey = _slotKey(key, bucket);
        hash = _slotHashes[slotKey];
        if (hash != 0) return (true, hash, _slotTypes[slotKey]);

        mapping(uint256 => uint256) storage words = _buckets[bucket];
        uint256 word = words[0];
        uint256 count = word >> 224;
        uint256 prefix = uint256(key) >> 130;
        for (uint256 i = 0; i < count; ++i) {
            (uint256 at, uint256 shift) = _entryPosition(i);
            // Read each word once: a new one starts where the shift returns to 0.
            if (shift == 0 && at != 0) word = words[at];
            uint256 entry = (word >> shift) & _ENTRY_MASK;
            if (offset < (entry >> 16) & 0xffff || offset > entry & 0xffff) continue;
            (found, hash, recordType) = _search(_createAddress(entry >> 32), prefix);
            if (found) return (true, hash, recordType);
        }
        return (false, 0, 0);
    }

    /// @dev Drops the cached registrar: from now on every registrar is checked against the seal.
    function _onSeal() internal override {
        _state = (_state >> 160) << 160;
    }

    /// @inheritdoc AccessControl
    function _grantRole(bytes32 role, address account) internal override returns (bool granted) {
        granted = super._grantRole(role, account);
        // A registrar granted after the seal is not cached: it must meet `_requireNotSealed`.
        if (role == REGISTRAR_ROLE && sealedBlockNumber() == 0) {
            _state = ((_state >> 160) << 160) | uint160(account);
        }
    }

    /// @inheritdoc AccessControl
    function _revokeRole(bytes32 role, address account) internal override returns (bool revoked) {
        revoked = super._revokeRole(role, account);
        if (role == REGISTRAR_ROLE && address(uint160(_state)) == account) {
            _state = (_state >> 160) << 160;
        }
    }

    function _slotKey(bytes32 key, uint256 bucket) private pure returns (bytes32 slotKey) {
        assembly ("memory-safe") {
            mstore(0, key)
            mstore(0x20, bucket)
            slotKey := keccak256(0, 0x40)
        }
    }

    /// @dev Requires records strictly ascending by their 126-bit key prefix and non-zero hashes.
    function _checkRecords(bytes calldata records) private pure {
        uint256 count = records.length / _RECORD_BYTES;
        uint256 previous;
        for (uint256 i = 0; i < count; ++i) {
            uint256 prefix;
            uint256 hash;
            assembly ("memory-safe") {
                let at := add(records.offset, mul(i, 48))
                prefix := shr(130, calldataload(at))
                hash := calldataload(add(at, 16))
            }
            if (hash == 0) revert RecordHashEmpty(i);
            // The first record is compared with 0 only when it is not the first.
            // solhint-disable-next-line gas-strict-inequalities
            if (i != 0 && prefix <= previous) revert BatchNotSorted(i);
            previous = prefix;
        }
    }

    /// @dev Looks among the entries of a batch's first bucket with the same offsets for a data
    /// contract whose code hash is `codeHash`. The words read here are the ones `_append` writes
    /// next, so a new batch pays little more than the loop.
    function _findIdentical(
        uint256 bucketWord,
        bytes32 codeHash
    ) private view returns (bool found, uint256 batch) {
        mapping(uint256 => uint256) storage words = _buckets[bucketWord >> 32];
        uint256 word = words[0];
        uint256 count = word >> 224;
        uint256 offsets = bucketWord & 0xffffffff;
        for (uint256 i = 0; i < count; ++i) {
            (uint256 at, uint256 shift) = _entryPosition(i);
            if (shift == 0 && at != 0) word = words[at];
            uint256 entry = (word >> shift) & _ENTRY_MASK;
            if (entry & 0xffffffff != offsets) continue;
            batch = (entry >> 32) - 1;
            if (_createAddress(batch + 1).codehash == codeHash) return (true, batch);
        }
        return (false, 0);
    }

    /// @dev Appends one entry to a bucket's list.
    function _append(uint256 bucket, uint256 entry) private {
        mapping(uint256 => uint256) storage words = _buckets[bucket];
        uint256 head = words[0];
        (uint256 at, uint256 shift) = _entryPosition(head >> 224);
        if (at == 0) {
            words[0] = (head + (1 << 224)) | (entry << shift);
        } else {
            words[0] = head + (1 << 224);
            words[at] |= entry << shift;
        }
    }

    function _entryAt(
        mapping(uint256 => uint256) storage words,
        uint256 i
    ) private view returns (uint256) {
        (uint256 at, uint256 shift) = _entryPosition(i);
        return (words[at] >> shift) & _ENTRY_MASK;
    }

    /// @dev Where entry `i` of a bucket sits: the word and the bit shift within it. The one formula
    /// of the bucket layout: 64-bit positions, four a word, position 3 (the top of word 0) holding
    /// the count, so entry `i` takes position `i` below 3 and `i + 1` from 3 on.
    function _entryPosition(uint256 i) private pure returns (uint256 word, uint256 shift) {
        uint256 position;
        assembly ("memory-safe") {
            // `i + (i > 2)` without a branch; i is a count below 2^32, so it cannot overflow.
            position := add(i, gt(i, 2))
        }
        return (position >> 2, (position & 3) << 6);
    }

    /// @dev Binary search of a data contract for a 126-bit key prefix.
    function _search(
        address data,
        uint256 prefix
    ) private view returns (bool found, bytes32 hash, uint256 recordType) {
        // Entries only name batches already created, so `data` always has code.
        uint256 low = 0;
        uint256 high = (data.code.length - 1) / _RECORD_BYTES;
        while (low < high) {
            uint256 middle = (low + high) >> 1;
            uint256 tag;
            assembly ("memory-safe") {
                mstore(0, 0)
                extcodecopy(data, 0, add(1, mul(middle, 48)), 16)
                tag := shr(128, mload(0))
            }
            uint256 probe = tag >> 2;
            if (probe == prefix) {
                assembly ("memory-safe") {
                    extcodecopy(data, 0, add(17, mul(middle, 48)), 32)
                    hash := mload(0)
                }
                return (true, hash, tag & 3);
            }
            if (probe < prefix) low = middle + 1;
            else high = middle;
        }
        return (false, 0, 0);
    }

    /// @dev The address of the contract this one creates with `nonce` (CREATE: keccak of the RLP
    /// list [this, nonce]), by solady's LibRLP.
    function _createAddress(uint256 nonce) private view returns (address) {
        return LibRLP.computeAddress(address(this), nonce);
    }
}
