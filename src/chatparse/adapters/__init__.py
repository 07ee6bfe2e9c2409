"""The built-in adapters, one module per source.

Nothing here is imported by ``import chatparse``: the registry imports a module the first time its
adapter is asked for. Each module reads like a description of its format; start with any one of
them to write your own.
"""
