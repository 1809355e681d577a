// SPDX-License-Identifier: MIT
// The token the local chain (anvil) deploys for USDC and USDT: a minimal ERC-20 with the parts a
// payout touches. Its name, symbol and decimals are set at deployment (6 for USDC and USDT on
// most networks, 18 where a network's tokens carry 18, as on bsc). Like real tokens, a transfer
// larger than the sender's balance reverts (OpenZeppelin's error), so a payout from an unfunded
// hot wallet is mined and reverted. Only the deployer can mint, to fund the hot wallet.
//
// Compiled by the pinned solc (compile.mjs); Token.bin and Token.abi.json beside this file are
// its output, checked by the lint test evm_token_bytecode.
pragma solidity 0.8.37;

contract Token {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    address public immutable minter;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed);
    error ERC20InvalidReceiver(address receiver);
    error NotMinter(address caller);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        minter = msg.sender;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        if (to == address(0)) revert ERC20InvalidReceiver(to);
        uint256 balance = balanceOf[msg.sender];
        if (balance < value) revert ERC20InsufficientBalance(msg.sender, balance, value);
        unchecked {
            balanceOf[msg.sender] = balance - value;
        }
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    function mint(address to, uint256 value) external {
        if (msg.sender != minter) revert NotMinter(msg.sender);
        if (to == address(0)) revert ERC20InvalidReceiver(to);
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }
}
