"""iGRPO on TRL's `GRPOTrainer`: a second group conditioned on the best of N drafts."""
