"""Discord scheduled events bound to wall-clock tasks."""
