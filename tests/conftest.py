"""Fixtures shared across the test folders."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray with two CPUs (started here unless one is running), shut down afterwards;
    the test is skipped where Ray is not installed. Nothing outside the machine is touched."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def chromium():
    """A headless chromium driven by Selenium (:func:`tests.browser.chromium_driver`); mark the
    module with ``tests.browser.needs_chromium`` so it is skipped where chromium is absent."""
    from tests.browser import chromium_driver

    with chromium_driver() as driver:
        yield driver
