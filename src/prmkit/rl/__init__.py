"""prmkit.rl"""
