"""A pinhole camera over the table plane (z = 0, tile units; +y is the player's side, +z up).

Only two things are needed from it: where a 3-D point lands in the image (exact labels for each tile's face and
body), and the homography of the table plane (one warp of the drawn table into the photo). A tile's face at
height ``t`` is drawn on the plane where the camera ray through it meets the table, so the single plane warp
shows the tile's thickness on the side facing the camera.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Camera:
    centre: np.ndarray  # (3,) camera position in tile units
    axes: np.ndarray  # (3, 3): rows are image right, image down, forward
    scale: float = 1.0  # pixels per unit of normalized image coordinates
    offset: tuple[float, float] = (0.0, 0.0)

    @classmethod
    def looking_at(cls, target: np.ndarray, distance: float, tilt_deg: float, yaw_deg: float, roll_deg: float):
        tilt, yaw, roll = np.radians([tilt_deg, yaw_deg, roll_deg])
        back = np.array([0.0, np.sin(tilt), np.cos(tilt)])  # from target towards the camera, yaw 0
        down = np.array([0.0, np.cos(tilt), -np.sin(tilt)])
        right = np.array([1.0, 0.0, 0.0])
        rz = np.array([[np.cos(yaw), -np.sin(yaw), 0], [np.sin(yaw), np.cos(yaw), 0], [0, 0, 1]])
        back, down, right = rz @ back, rz @ down, rz @ right
        forward = -back
        # roll turns the picture about the viewing axis
        r2 = np.cos(roll) * right + np.sin(roll) * down
        d2 = -np.sin(roll) * right + np.cos(roll) * down
        return cls(np.asarray(target, float) + distance * back, np.stack([r2, d2, forward]))

    def normalized(self, pts: np.ndarray) -> np.ndarray:
        """(N, 3) world points -> (N, 2) normalized image coordinates (before scale and offset)."""
        cam = (pts - self.centre) @ self.axes.T
        depth = np.maximum(cam[:, 2:3], 1e-6)
        return cam[:, :2] / depth

    def project(self, pts: np.ndarray) -> np.ndarray:
        return self.normalized(pts) * self.scale + np.array(self.offset)

    def ray_to_table(self, pixels: np.ndarray, far: float) -> np.ndarray:
        """(N, 2) pixels -> (N, 2) points of the table plane the rays meet (capped at ``far`` units away)."""
        uv = (pixels - np.array(self.offset)) / self.scale
        dirs = uv[:, :1] * self.axes[0] + uv[:, 1:2] * self.axes[1] + self.axes[2]
        dz = dirs[:, 2]
        t = np.where(dz < -1e-6, -self.centre[2] / np.minimum(dz, -1e-6), np.inf)
        hits = self.centre[None, :2] + dirs[:, :2] * t[:, None]
        # rays that miss the table (or meet it very far) are pulled in along their ground direction
        foot = self.centre[:2]
        vec = hits - foot
        dist = np.linalg.norm(vec, axis=1, keepdims=True)
        ground = dirs[:, :2] / np.maximum(np.linalg.norm(dirs[:, :2], axis=1, keepdims=True), 1e-9)
        capped = foot + ground * far
        return np.where((np.isfinite(dist)) & (dist < far), hits, capped)

    def lifted(self, xy: np.ndarray, height: float) -> np.ndarray:
        """Where the camera ray through (x, y, height) meets the table: how a raised point is drawn on the plane."""
        cz = self.centre[2]
        return xy + (xy - self.centre[None, :2]) * (height / max(cz - height, 1e-3))

    def plane_homography(self, canvas_origin: np.ndarray, ppu: float, table_pts: np.ndarray) -> np.ndarray:
        """3x3 homography from canvas pixels (table drawn at ``ppu`` from ``canvas_origin``) to image pixels."""
        world = np.concatenate([table_pts, np.zeros((len(table_pts), 1))], axis=1)
        src = ((table_pts - canvas_origin) * ppu).astype(np.float32)
        dst = self.project(world).astype(np.float32)
        return cv2.getPerspectiveTransform(src[:4], dst[:4])
