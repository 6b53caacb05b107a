"""prmkit.generate"""
