// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IRegistryGeneration} from "../interfaces/IRegistryGeneration.sol";

/// @title A registry's announced successor and its seal
/// @notice The admin announces the next registry generation once, and seals a retired one.
/// @dev The registry checks `_requireNotSealed` on each write path a registrar can take, and
/// `_onSeal` lets it drop whatever fast path it keeps for registrars.
abstract contract RegistryGeneration is IRegistryGeneration, AccessControl {
    /// @dev `successor (160 bits) | sealedBlockNumber << 160`: both views answer from one slot.
    uint256 private _generation;

    /// @inheritdoc IRegistryGeneration
    function announceNextGeneration(address next) external onlyRole(DEFAULT_ADMIN_ROLE) {
        uint256 generation = _generation;
        address announced = address(uint160(generation));
        if (announced != address(0)) revert SuccessorAlreadyAnnounced(announced);
        if (next == address(this) || next.code.length == 0) revert SuccessorInvalid(next);
        _generation = generation | uint160(next);
        emit SuccessorAnnounced(next);
    }

    /// @inheritdoc IRegistryGeneration
    function sealForever() external onlyRole(DEFAULT_ADMIN_ROLE) {
        uint256 generation = _generation;
        if (generation >> 160 != 0) revert RegistrySealed();
        // A transaction's block number is at least 1, so 0 keeps meaning "not sealed".
        _generation = (block.number << 160) | generation;
        _onSeal();
        emit Sealed(block.number);
    }

    /// @inheritdoc IRegistryGeneration
    function nextGeneration() external view returns (address successor) {
        return address(uint160(_generation));
    }

    /// @inheritdoc IRegistryGeneration
    function sealedBlockNumber() public view returns (uint256 blockNumber) {
        return _generation >> 160;
    }

    /// @dev Called once, when the registry is sealed.
    function _onSeal() internal virtual;

    /// @dev Reverts with `RegistrySealed` once the registry is sealed.
    function _requireNotSealed() internal view {
        if (_generation >> 160 != 0) revert RegistrySealed();
    }
}
