"""Use cases: one service each, owning locks, transactions and timers; no Discord types."""
