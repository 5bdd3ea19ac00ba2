"""Who uses the app: sign-in, owners, share links."""
