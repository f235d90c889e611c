"""The property catalogue (DESIGN.md §4): one module per area, each property cites its seed."""
