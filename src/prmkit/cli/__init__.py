"""prmkit.cli"""
