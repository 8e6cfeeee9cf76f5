"""Memory control's admin (batch revert with a confirmation page, erasure receipts, consolidation cursor)."""
