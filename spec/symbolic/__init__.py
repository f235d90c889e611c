"""Z3 encodings of the spec functions that ``config`` claims are about (DESIGN §1).

Each module mirrors named Python functions of ``spec`` and is tested against them
(exhaustively at a small bound, with Hypothesis at larger ones: tests/test_symbolic_*.py),
so the encoding cannot drift from the executable specification — Batfish's SMT engine
drifted from its simulator and was deleted. Pure: imports only z3 and spec.

- :mod:`spec.symbolic.topics`      both wildcard schemes over bounded topic strings
                                    (``spec.topics.topic_matches``, ``fixed_prefix``)
- :mod:`spec.symbolic.topic_tree`  closest topic object, ASPARENT inheritance, WILDCARD(BLOCK)
                                    (``spec.topic_tree.TopicSpace``, ``is_blocked``)
- :mod:`spec.symbolic.reach`       a publication reaching a remote subscription through a
                                    proxy subscription (``spec.pubsub`` rules)
- :mod:`spec.symbolic.repository`  record propagation among full repositories
- :mod:`spec.symbolic.loops`       fingerprint loop detection and path length
- :mod:`spec.symbolic.workload`    the workload algorithm's choice among <= K instances
- :mod:`spec.symbolic.weights`     its weighted final choice over successive puts
                                    (``spec.workload.choose``'s final choice, ``distribute``)
- :mod:`spec.symbolic.scenario`    a user's settled configuration, topic strings left open

Variants (``variant=`` arguments) are deliberately broken rules: each claim is shown not
to be vacuous by refuting it under one (DESIGN §5 mutants where one applies).
"""
