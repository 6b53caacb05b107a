"""prmkit.evaluate"""
