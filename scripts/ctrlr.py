"""Presses Ctrl+R in the X display $DISPLAY (XTest), with the pointer moved
onto the window first so that it has the keyboard focus (no window manager
under Xvfb). Used by bench-appmem.sh to start a run in the desktop app."""
import ctypes
import time

x11 = ctypes.cdll.LoadLibrary("libX11.so.6")
xtst = ctypes.cdll.LoadLibrary("libXtst.so.6")
x11.XOpenDisplay.restype = ctypes.c_void_p
x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
xtst.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
xtst.XTestFakeMotionEvent.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_ulong]
x11.XFlush.argtypes = [ctypes.c_void_p]

d = x11.XOpenDisplay(None)
if not d:
    raise SystemExit("cannot open the X display")
xtst.XTestFakeMotionEvent(d, -1, 640, 400, 0)
x11.XFlush(d)
time.sleep(0.3)
ctrl = x11.XKeysymToKeycode(d, 0xFFE3)  # Control_L
r = x11.XKeysymToKeycode(d, ord("r"))
for code, down in ((ctrl, 1), (r, 1), (r, 0), (ctrl, 0)):
    xtst.XTestFakeKeyEvent(d, code, down, 0)
    x11.XFlush(d)
    time.sleep(0.05)
