"""Robustness tests: fuzzed records, truncated files, hostile inputs, concurrent writers."""
