"""Helpers for the test suite: a live server in a thread and Alertmanager payload builders."""
