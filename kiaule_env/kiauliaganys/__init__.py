"""Kiauliaganys (Swineherd): engine (:mod:`.rules`), encoders (:mod:`.encoding`), env (:mod:`.env`).

The public, versioned module is :mod:`kiaule_env.kiauliaganys_v0`.
"""
