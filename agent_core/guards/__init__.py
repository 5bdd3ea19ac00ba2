"""Guards every run shares: run limits (``limits``), what JSON from outside may hold (``json_limits``), secrets
masked on the way out (``masking``), untrusted text made safe to show (``untrusted``), safe output files
(``safe_write``)."""
