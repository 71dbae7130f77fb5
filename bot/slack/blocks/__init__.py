"""Block Kit builders: pure functions from domain objects to `slack_sdk.models` blocks.

Text from alerts, logs and the cluster is data: it is escaped (no mentions, no links it did not
have) and cut to Block Kit's limits with a mark, so a message is never refused for its length.
"""
