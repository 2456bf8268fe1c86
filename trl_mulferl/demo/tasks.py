"""The learning benchmark's tasks by name: two-digit addition with a checker's diagnoses, and programs from
input/output examples with the interpreter's reports."""

from .programs import PROGRAMS
from .warm_start import ADDITION


TASKS = {task.name: task for task in (ADDITION, PROGRAMS)}
