// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title Hexadecimal rendering of stored hashes
/// @notice Hashes are stored as 32-byte words and returned in the form users know them:
/// 64 lowercase hexadecimal characters without a `0x` prefix.
library Hex {
    bytes16 private constant _DIGITS = "0123456789abcdef";

    /// @notice Renders a 32-byte word as 64 lowercase hexadecimal characters.
    /// @param value The word to render.
    /// @return The hexadecimal string.
    function toHexString(bytes32 value) internal pure returns (string memory) {
        bytes memory out = new bytes(64);
        for (uint256 i = 0; i < 32; ++i) {
            uint8 b = uint8(value[i]);
            out[2 * i] = _DIGITS[b >> 4];
            out[2 * i + 1] = _DIGITS[b & 0x0f];
        }
        return string(out);
    }
}
