"""prmkit.search"""
