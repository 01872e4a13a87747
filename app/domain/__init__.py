"""Pure domain rules of the service: no I/O, no framework, standard library only.

Modules here hold decisions that must be testable in isolation and identical for every
caller, so use cases and handlers gather facts and delegate the shaping to this package.
"""
