"""The Slack surface: the incident channel, its posts, `/incident`, and the buttons' listeners."""
