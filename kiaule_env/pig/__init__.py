"""Pig (RULES §3, seed 001): the four-of-a-kind passing race, a simultaneous-move game.

``rules`` is the pure engine, ``encoding`` the observation encoder and action codec, ``env`` the
PettingZoo ``ParallelEnv`` and its AEC conversion; the public module is ``kiaule_env.pig_v0``.
"""
