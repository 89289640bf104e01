"""aclog: an event-sourced metadata log for Kafka ACLs and SCRAM credentials."""

__version__ = "0.1.0"
