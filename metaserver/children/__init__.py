"""Generated servers as processes: how one is launched, the pool of live children, a one-shot
call.
"""
