from django.contrib.auth.password_validation import validate_password
from django.db import transaction

from .models import User


class UserExists(ValueError):
    pass


@transaction.atomic
def user_create(*, email: str, display_name: str, password: str | None, validate: bool = True) -> User:
    if User.objects.filter(email__iexact=email.strip()).exists():
        raise UserExists(f"a user with email {email} already exists")
    user = User(email=email.strip(), display_name=display_name.strip())
    if password and validate:
        validate_password(password, user)
    user.set_password(password)
    user.full_clean(exclude=["password"])
    user.save()
    return user
