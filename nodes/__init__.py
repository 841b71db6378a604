"""The processes of a federation: leaves, routers, the gateway, and what launches them."""
