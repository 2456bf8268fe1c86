"""The offline demo and the learning benchmark's task, kept out of the library: two-digit addition
(`trl_mulferl.demo.addition`), a warm-started policy that reads feedback (`trl_mulferl.demo.warm_start`), and
GRPO, MulFeRL and iGRPO trained from it (`trl_mulferl.demo.compare`, the `trl-mulferl demo` command)."""
