"""prmkit.train"""
