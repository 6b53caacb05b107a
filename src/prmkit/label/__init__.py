"""prmkit.label"""
