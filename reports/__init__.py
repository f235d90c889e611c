"""HTML reports rendered from plain result data (never spec objects; DESIGN.md §1)."""
