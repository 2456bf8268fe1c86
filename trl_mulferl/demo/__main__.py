"""`python -m trl_mulferl.demo`, the same as `trl-mulferl demo`."""

from .compare import main


main()
