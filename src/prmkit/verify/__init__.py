"""prmkit.verify"""
