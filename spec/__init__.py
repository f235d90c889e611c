"""The executable specification of IBM MQ clusters and publish/subscribe.

Pure and deterministic (DESIGN.md §1, STYLE.md habit 1): no I/O, no clocks, no randomness,
no global mutable state. Every rule cites the seed section it comes from.
"""
