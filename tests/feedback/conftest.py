import pytest

from tests.helpers.fault_server import FaultServer


@pytest.fixture
def server():
    """A `FaultServer` on 127.0.0.1 for the test (the OpenAI provider's and the cost controls' tests)."""
    with FaultServer() as fault_server:
        yield fault_server
