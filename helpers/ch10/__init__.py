"""Chapter 10 (a depth image turned into a point cloud): the depth camera's model and the
NumPy point cloud the kernels are checked against.
"""
