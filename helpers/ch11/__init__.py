"""Chapter 11 (several GPUs): splitting work over devices, and PyTorch's data-parallel peer.
"""
