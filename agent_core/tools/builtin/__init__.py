"""The built-in tools every agent has: a safe calculator, the clock, date arithmetic."""
