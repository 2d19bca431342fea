"""The rulebook grammar (rules.lark), shipped as package data."""
