"""Guards every run shares: cancellation and time limits, output checks, secret masking in streams, untrusted text,
value limits, safe output files."""
