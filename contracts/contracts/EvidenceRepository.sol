// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IEvidenceRepository} from "./interfaces/IEvidenceRepository.sol";
import {Hex} from "./libraries/Hex.sol";
import {RecordKey} from "./libraries/RecordKey.sol";

/// @title Trustpoint asset evidence repository
/// @notice Write-once store of asset evidences, written by registrars and read by anyone.
/// @dev One storage slot per evidence.
contract EvidenceRepository is IEvidenceRepository, AccessControl {
    /// @notice Role allowed to record evidences.
    bytes32 public constant REGISTRAR_ROLE = keccak256("REGISTRAR_ROLE");

    mapping(bytes32 key => bytes32 hash) private _hashes;

    /// @param admin Account that manages roles.
    /// @param registrar Account allowed to record evidences.
    constructor(address admin, address registrar) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(REGISTRAR_ROLE, registrar);
    }

    /// @inheritdoc IEvidenceRepository
    function registerEvidence(bytes32 key, bytes32 hash) external onlyRole(REGISTRAR_ROLE) {
        _register(key, hash);
    }

    /// @inheritdoc IEvidenceRepository
    function registerEvidences(
        EvidenceRecord[] calldata records
    ) external onlyRole(REGISTRAR_ROLE) {
        uint256 count = records.length;
        for (uint256 i = 0; i < count; ++i) {
            EvidenceRecord calldata record = records[i];
            _register(record.key, record.hash);
        }
    }

    /// @inheritdoc IEvidenceRepository
    function getEvidence(
        string calldata assetHash,
        uint256 timestamp
    ) external view returns (string memory hash) {
        bytes32 stored = _hashes[RecordKey.derive(assetHash, timestamp)];
        if (stored == 0) revert EvidenceNotFound_7QF74();
        return Hex.toHexString(stored);
    }

    /// @inheritdoc IEvidenceRepository
    function evidenceOf(bytes32 key) external view returns (bytes32 hash) {
        return _hashes[key];
    }

    /// @inheritdoc IEvidenceRepository
    function evidenceKey(
        string calldata assetHash,
        uint256 timestamp
    ) external pure returns (bytes32) {
        return RecordKey.derive(assetHash, timestamp);
    }

    function _register(bytes32 key, bytes32 hash) private {
        if (hash == 0) revert EvidenceHashEmpty(key);
        bytes32 existing = _hashes[key];
        if (existing == 0) {
            _hashes[key] = hash;
            emit EvidenceRegistered(key, hash);
        } else if (existing != hash) {
            revert EvidenceConflict(key);
        }
        // An identical record is already there: a retried batch passes over it.
    }
}
